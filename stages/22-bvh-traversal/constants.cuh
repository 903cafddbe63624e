/* What the walks and the pixels share: the light and the camera in constant memory, and what a
 * walk of the tree looks for. */

__constant__ Light constant_light;
__constant__ Camera constant_camera;

/* What a walk of the tree looks for: the nearest sphere of a ray from the camera (its oc and k
 * read per sphere), the nearest of a ray from a surface point, or any sphere that shadows. */
enum search { NEAREST_FROM_CAMERA, NEAREST, ANY_BLOCKER };
